"""``rosenblatt export``: a saved model as an ONNX graph, which runs without Python."""

from __future__ import annotations

import os
from dataclasses import dataclass

import typer

from ..._core.files import check_writable, write_atomically
from ._common import err_console, load_model, report_error, working
from ._options import Dtype, Model, Onnx

DTYPES = ("float32", "float64")


@dataclass
class ExportResult:
    """The graph written: where, from which model, its inputs and outputs, its size."""

    model_path: str
    onnx_path: str
    estimator: str
    inputs: list
    outputs: list
    n_bytes: int


def _describe(values) -> list[str]:
    """``name: type [shape]`` of each graph input or output (None: any number of rows)."""
    from onnx import TensorProto

    described = []
    for value in values:
        tensor = value.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
        kind = TensorProto.DataType.Name(tensor.elem_type).lower()
        described.append(f"{value.name}: {kind} {dims}")
    return described


def export(
    model_path: str | os.PathLike[str], onnx_path: str | os.PathLike[str], *, dtype: str = "float32"
) -> ExportResult:
    """Write the model saved at ``model_path`` as an ONNX graph to ``onnx_path``.

    The graph is :func:`rosenblatt.to_onnx`'s, with inputs and float outputs of
    ``dtype``; the file appears whole or not at all. Raises ``ImportError`` without
    the ``onnx`` extra, ``ValueError`` for a model that cannot be exported.

    Returns
    -------
    ExportResult
    """
    import numpy as np

    if dtype not in DTYPES:
        raise ValueError(f"--dtype must be float32 or float64; got {dtype!r}")
    check_writable(onnx_path)  # a mistyped path fails now, before any loading
    from ...persistence.onnx import register_converters, to_onnx

    register_converters()  # without the extra: the ImportError that says how to install it
    model, _ = load_model(model_path)
    graph = to_onnx(model, dtype=np.dtype(dtype))
    data = graph.SerializeToString()
    write_atomically(onnx_path, data)
    return ExportResult(
        model_path=os.fspath(model_path),
        onnx_path=os.fspath(onnx_path),
        estimator=type(model).__name__,
        inputs=_describe(graph.graph.input),
        outputs=_describe(graph.graph.output),
        n_bytes=len(data),
    )


def command(model: Model, onnx: Onnx, dtype: Dtype = "float32") -> None:
    """Write a saved model as an ONNX graph, which onnxruntime runs without Python or rosenblatt.

    The graph gives the model's labels and scores (probabilities for a model trained with --calibrate). Needs the extra: pip install 'rosenblatt\\[onnx]'.
    """  # noqa: E501 (one line: the help keeps the docstring's line breaks)
    _run(**locals())


def _run(model: str, onnx: str, dtype: str) -> None:
    """What ``rosenblatt export`` does with its options: export, then say what was written
    (without the extra: one line that says how to add it)."""
    try:
        with working(f"exporting {model}..."):
            result = export(model, onnx, dtype=dtype)
    except ImportError as exc:  # the extra is missing: one line that says how to add it
        report_error(str(exc))
        raise typer.Exit(2) from None
    err_console.print(
        f"wrote {result.onnx_path} ({result.n_bytes:,} bytes): {result.estimator}, "
        f"input {', '.join(result.inputs)}; outputs {', '.join(result.outputs)}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
