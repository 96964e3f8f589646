from studio.cli.app import run

run()
