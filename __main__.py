from reprokg.cli import run

run()
