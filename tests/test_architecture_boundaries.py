"""The layers import only downwards, and no module of the project imports itself in a
circle (docs/architecture.md, "Layers").

Checked on the source, not at run time: every ``.py`` under each package is parsed and
every ``import x`` / ``from x import y`` is collected wherever it stands (module level,
inside a function, under ``if TYPE_CHECKING``), so a function-level import is no way
around a rule. Only static imports are seen: ``importlib.import_module`` with a computed
name (``dose_mem/cli/commands.py``) and ``python -m`` subprocesses are not.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGES = ("memory_repo", "profiles", "recall_api", "flows", "evaluation", "dose_mem")

# What each package must never import. memory_repo and profiles are the bottom layer;
# the read path (recall_api) and the write path (flows) stand side by side on it and
# never import each other; evaluation and the CLI (dose_mem) are on top and may import
# anything below.
FORBIDDEN = {
    "memory_repo": {"recall_api", "flows", "evaluation", "dose_mem"},
    "profiles": {"recall_api", "flows", "evaluation", "dose_mem"},
    "recall_api": {"flows", "evaluation", "dose_mem"},
    "flows": {"recall_api", "evaluation", "dose_mem"},
}

Graph = dict[str, dict[str, int]]  # module -> {imported module: line of the first import}


def project_modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the packages under ``root``."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _project_target(name: str, modules: dict[str, Path]) -> str | None:
    """The project module an imported dotted name lives in (``a.b.C`` -> ``a.b``)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path) -> Graph:
    modules = project_modules(root)
    graph: Graph = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                # ``from pkg import sub`` imports the module pkg.sub when there is one
                names = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for name in names:
                target = _project_target(name, modules)
                if target is not None and target != module:
                    edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def boundary_violations(graph: Graph, modules: dict[str, Path], root: Path) -> list[str]:
    out = []
    for module, edges in sorted(graph.items()):
        banned = FORBIDDEN.get(module.split(".")[0], set())
        for target, line in sorted(edges.items()):
            if target.split(".")[0] in banned:
                out.append(f"{modules[module].relative_to(root)}:{line}: imports {target}")
    return out


def import_cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each as a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_one_cycle(graph, c) for c in sorted(components)]


def _one_cycle(graph: Graph, component: list[str]) -> list[str]:
    """A concrete loop through the component's first module, for the failure message."""
    inside, start = set(component), component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w == start:
                return [*paths[v], start]
            if w in inside and w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    return component  # unreachable for a real component


def test_every_package_is_seen() -> None:
    modules = project_modules(ROOT)
    for package in PACKAGES:
        assert package in modules, f"{package}/__init__.py not found"
    assert len(modules) > 100  # the walk found the tree, not an empty folder


def test_layers_import_only_downwards() -> None:
    violations = boundary_violations(import_graph(ROOT), project_modules(ROOT), ROOT)
    assert not violations, "imports against the layering:\n" + "\n".join(violations)


def test_no_import_cycles() -> None:
    cycles = import_cycles(import_graph(ROOT))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_checks_catch_a_hidden_violation_and_a_cycle(tmp_path: Path) -> None:
    """The checks themselves, on a tiny tree: an upward import inside a function, the
    module it imports importing back, and a relative import."""
    files = {f"{package}/__init__.py": "" for package in PACKAGES}
    files |= {
        "memory_repo/store.py": "def load():\n    from flows import ingest\n",
        "memory_repo/index/__init__.py": "",
        "memory_repo/index/build.py": "from ..store import load\n",
        "flows/ingest.py": "import memory_repo.store\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path)
    assert graph["memory_repo.store"] == {"flows.ingest": 2}
    assert graph["memory_repo.index.build"] == {"memory_repo.store": 1}
    assert boundary_violations(graph, project_modules(tmp_path), tmp_path) == [
        "memory_repo/store.py:2: imports flows.ingest"
    ]
    assert import_cycles(graph) == [["flows.ingest", "memory_repo.store", "flows.ingest"]]
