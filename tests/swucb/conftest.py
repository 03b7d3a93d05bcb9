import sys
from pathlib import Path

# The plain oracle lives beside the tests.
sys.path.insert(0, str(Path(__file__).parent))
