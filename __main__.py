import sys

from reprokg.cli import main

sys.exit(main())
