import sys

from tpgen.cli import main

sys.exit(main())
