"""``rosenblatt playground``: the interactive page, served locally or exported as files."""

from __future__ import annotations

from typing import Annotated

from ._common import console
from ._options import (
    BiasInput,
    Eta,
    Export,
    FeatureMap,
    Host,
    NoBrowser,
    Port,
    Preset,
    Seed,
    Shuffle,
    more_help,
)


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


# the playground's own words on the options it shares: they set the runs of --export
_FOR_EXPORT = "For --export."
_Eta = Annotated[float, more_help(Eta, _FOR_EXPORT)]
_BiasInput = Annotated[float, more_help(BiasInput, f"1 or -1. {_FOR_EXPORT}")]
_Shuffle = Annotated[bool, more_help(Shuffle, _FOR_EXPORT)]
_Seed = Annotated[int, more_help(Seed, _FOR_EXPORT)]
_FeatureMap = Annotated[bool, more_help(FeatureMap, _FOR_EXPORT)]
_Preset = Annotated[str, more_help(Preset, _FOR_EXPORT)]


def command(
    host: Host = "127.0.0.1",
    port: Port = 8765,
    no_browser: NoBrowser = False,
    export: Export = None,
    preset: _Preset = "or",
    eta: _Eta = 1.0,
    bias_input: _BiasInput = -1.0,
    shuffle: _Shuffle = False,
    seed: _Seed = 0,
    feature_map: _FeatureMap = False,
) -> None:
    """Serve the playground: a page where students watch the perceptron learn.

    Click to add points, step through the updates, see the margin, R and the
    mistake bound. Stop with Ctrl-C.
    """
    _run(**locals())


def _run(
    host: str,
    port: int,
    no_browser: bool,
    export: str | None,
    preset: str,
    eta: float,
    bias_input: float,
    shuffle: bool,
    seed: int,
    feature_map: bool,
) -> None:
    """What ``rosenblatt playground`` does with its options: serve the page until Ctrl-C, or
    write its static copy (``export``)."""
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
