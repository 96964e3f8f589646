from studio.cli.main import run

run()
