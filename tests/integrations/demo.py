"""What the integration tests ask of the demo memory (memory_repo/demo.py): the two
projects' working directories, a prompt that needs memory and the card it must bring."""

TABLEKIT_CWD = "/home/demo/code/tablekit"
TABSENSE_CWD = "/home/demo/research/tabsense"
SETUP_PROMPT = "Set up the Python environment for this project"
UV_CARD = "uv-for-python-envs"
