"""`dose-mem connect pi`: the extension in extensions/dose-mem/ with an entry point that
sets its environment; then the real Pi (0.73.1 from npm) loads it from that directory."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from evaluation.agents.pi import node, pi_package
from recall_api.integrations.client_files import files
from tests.connect.sandbox import TOKEN, Box, mode, write

LOAD = """
const [pkg, agentDir, cwd] = process.argv.slice(2);
const { discoverAndLoadExtensions } = await import(pkg + "/dist/core/extensions/loader.js");
const result = await discoverAndLoadExtensions([], cwd, agentDir);
console.log(JSON.stringify({
  extensions: result.extensions.map((e) => ({ path: e.path, tools: [...e.tools.keys()] })),
  errors: result.errors,
  token: process.env.DOSE_MEM_TOKEN ?? null,
  url: process.env.DOSE_MEM_URL ?? null,
}));
"""


def test_an_empty_pi_home(box: Box) -> None:
    box.connect("pi", url="http://127.0.0.1:9100")
    folder = box.root / "pi" / "extensions" / "dose-mem"
    for name, text in files("pi").items():
        assert (folder / name).read_text() == text
    entry = (folder / "index.ts").read_text()
    assert 'import doseMem from "./dose-mem.ts";' in entry
    assert f'process.env.DOSE_MEM_TOKEN = "{TOKEN}";' in entry
    assert mode(folder / "index.ts") == 0o600

    first = box.files()
    assert box.connect("pi", url="http://127.0.0.1:9100").written == []
    assert box.files() == first
    box.disconnect("pi")
    assert box.files(backups=True) == {}


def test_a_hand_copied_extension_is_replaced_and_other_extensions_stay(box: Box) -> None:
    extensions = box.root / "pi" / "extensions"
    write(extensions / "dose-mem.ts", "// the README's manual copy\n")
    theirs = write(extensions / "my-tool.ts", "export default function () {}\n")
    result = box.connect("pi")
    assert not (extensions / "dose-mem.ts").exists()  # it would load the extension twice
    assert any("dose-mem.ts" in warning for warning in result.plan.warnings)
    box.disconnect("pi")
    assert sorted(p.name for p in extensions.iterdir()) == ["my-tool.ts"]
    assert theirs.read_text() == "export default function () {}\n"


def test_the_real_pi_loads_the_extension_with_its_token(box: Box, tmp_path: Path) -> None:
    box.connect("pi", url="http://127.0.0.1:9100")
    script = write(tmp_path / "load.mjs", LOAD)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSE_MEM_")}
    done = subprocess.run(
        [node(), str(script), str(pi_package()), box.env["PI_CODING_AGENT_DIR"], str(box.cwd)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["errors"] == []
    [extension] = seen["extensions"]
    assert extension["path"].endswith("extensions/dose-mem/index.ts")
    # dose-mem.ts registers its tools only when it finds a token: it found ours
    assert sorted(extension["tools"]) == ["memory_read", "memory_search"]
    assert seen["token"] == TOKEN and seen["url"] == "http://127.0.0.1:9100"
