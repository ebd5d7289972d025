"""What people run: the command line (typer, thin), the playground (server and page), the
demo, the report and the plots."""
