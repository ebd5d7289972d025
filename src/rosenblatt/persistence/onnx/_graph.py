"""A small builder of ONNX nodes inside a skl2onnx conversion.

skl2onnx hands each converter a scope (unique names) and a container (nodes and
initializers); :class:`Graph` wraps both so that the graphs of the estimators read
as the arithmetic they compute: ``g.op("MatMul", x, w)`` returns the name of the
result. Constants keep their numpy dtype: a float64 array becomes a double tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from onnx import TensorProto, helper, numpy_helper

__all__ = ["FLOAT_TYPES", "Graph", "proto_type"]

# the numpy float types an exported graph computes in, by their ONNX element types
FLOAT_TYPES = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64}


def proto_type(dtype: Any) -> int:
    """The ONNX element type of a numpy dtype (strings: ``STRING``)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "OUS":
        return TensorProto.STRING
    return int(helper.np_dtype_to_tensor_dtype(dtype))


class Graph:
    """Nodes and constants added to a skl2onnx ``container``, named in its ``scope``.

    Every method returns the name of the tensor it makes, so graphs are written as
    nested calls. ``prefix`` starts the names of this converter's tensors (their
    estimator), which keeps a graph of several models readable.
    """

    def __init__(self, scope: Any, container: Any, prefix: str) -> None:
        self.scope, self.container, self.prefix = scope, container, prefix

    def name(self, hint: str) -> str:
        return self.scope.get_unique_variable_name(f"{self.prefix}_{hint}")

    def const(self, value: Any, hint: str = "const", dtype: Any = None) -> str:
        """An initializer holding ``value`` (its dtype, or ``dtype``); a scipy sparse
        matrix is stored sparse (the runtime makes it dense when it loads the graph)."""
        name = self.name(hint)
        if sp.issparse(value):
            coo = sp.coo_matrix(value, dtype=dtype)
            self.container.add_initializer(name, proto_type(coo.dtype), list(coo.shape), coo)
            return name
        array = np.asarray(value, dtype=dtype)
        if array.dtype.kind in "OUS":  # strings go as a list (a string tensor has no raw bytes)
            values = [str(v).encode("utf-8") for v in array.ravel()]
            self.container.add_initializer(name, TensorProto.STRING, list(array.shape), values)
            return name
        tensor = numpy_helper.from_array(array, name)  # raw bytes: fast for large arrays
        self.container.add_initializer(name, tensor.data_type, list(array.shape), tensor)
        return name

    def op(
        self,
        op_type: str,
        *inputs: str,
        output: str | None = None,
        domain: str = "",
        **attrs: Any,
    ) -> str:
        """One node of ``op_type`` on ``inputs``; its (single) output's name."""
        output = output or self.name(op_type.lower())
        self.container.add_node(
            op_type,
            list(inputs),
            [output],
            op_domain=domain,
            name=self.scope.get_unique_operator_name(f"{self.prefix}_{op_type}"),
            **attrs,
        )
        return output

    # ------------------------------------------------------------------ shorthands
    def cast(self, x: str, dtype: Any, output: str | None = None) -> str:
        return self.op("Cast", x, output=output, to=proto_type(dtype))

    def axes(self, *axes: int) -> str:
        return self.const(np.array(axes, dtype=np.int64), "axes")

    def sum(self, x: str, axis: int, keepdims: bool = False) -> str:
        return self.op("ReduceSum", x, self.axes(axis), keepdims=int(keepdims))

    def column(self, x: str) -> str:
        """``x`` (n,) as a column (n, 1)."""
        return self.op("Unsqueeze", x, self.axes(1))

    def flat(self, x: str) -> str:
        """``x`` (n, 1) as (n,)."""
        return self.op("Squeeze", x, self.axes(1))

    def gather(self, x: str, index: Any, axis: int = 0) -> str:
        """``x`` taken at ``index`` (a tensor name or an array of int64) along ``axis``."""
        if not isinstance(index, str):
            index = self.const(np.asarray(index, dtype=np.int64), "index")
        return self.op("Gather", x, index, axis=axis)

    def where(self, condition: str, then: str, otherwise: str) -> str:
        return self.op("Where", condition, then, otherwise)
