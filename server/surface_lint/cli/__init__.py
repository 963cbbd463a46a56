"""The command line: argparse front end (main), parallel runs, the progress bar."""
