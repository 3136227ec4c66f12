"""What the unit tests share: the import path of mmbench_tool."""
import sys
from pathlib import Path

TOOLING = Path(__file__).resolve().parents[1]
REPO = TOOLING.parent
if str(TOOLING) not in sys.path:
    sys.path.insert(0, str(TOOLING))
