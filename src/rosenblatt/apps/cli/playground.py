"""``rosenblatt playground``: the interactive page, served locally or exported as files."""

from __future__ import annotations

import typer

from ._common import console


def _export(folder, preset, eta, bias_input, shuffle, seed, feature_map):
    from ..._core.validation import check_option
    from ..playground.export import export
    from ..playground.runs import SETTING_CONSTRAINTS, Settings

    check_option("--bias-input", SETTING_CONSTRAINTS["bias"], bias_input)  # the page's rule
    settings = Settings(
        eta=eta, bias=bias_input, shuffle=shuffle, seed=seed, feature_map=feature_map
    )
    page = export(folder, preset, settings)
    console.print(f"Wrote the playground for preset {preset!r}: open {page}")


def command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8765, "--port", help="Port to listen on (0: any free port)."),
    no_browser: bool = typer.Option(False, "--no-browser", help="Do not open a browser."),
    export: str | None = typer.Option(
        None,
        "--export",
        metavar="DIR",
        help="Write a static copy of a preset's runs to DIR instead of serving.",
    ),
    preset: str = typer.Option("or", "--preset", help="Preset of --export."),
    eta: float = typer.Option(1.0, "--eta", help="Learning rate of --export."),
    bias_input: float = typer.Option(-1.0, "--bias-input", help="1 or -1, for --export."),
    shuffle: bool = typer.Option(False, "--shuffle", help="Shuffle each epoch, for --export."),
    seed: int = typer.Option(0, "--seed", help="Seed of the shuffling, for --export."),
    feature_map: bool = typer.Option(
        False, "--feature-map", help="Train on (x1, x2, x1*x2, x1^2, x2^2), for --export."
    ),
) -> None:
    """Serve the playground: a page where students watch the perceptron learn.

    Click to add points, step through the updates, see the margin, R and the
    mistake bound. Stop with Ctrl-C.
    """
    import warnings

    # a kernel run that stops short warns as any fit does; the page's note says it, the
    # terminal need not (set once, for this process, before any handler thread runs)
    warnings.filterwarnings("ignore", message=".* did not converge")
    if export is not None:
        return _export(export, preset, eta, bias_input, shuffle, seed, feature_map)
    from ..playground.server import make_server, url_of

    try:
        server = make_server(host, port)
    except OSError as exc:
        raise ValueError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
            "choose another --port, or 0 for any free one."
        ) from None
    url = url_of(server)
    console.print(f"The playground is at [bold]{url}[/] (Ctrl-C stops it)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"[yellow]It listens on {host}: other machines can reach it.[/]")
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        console.print("Stopped.")
    finally:
        server.server_close()
