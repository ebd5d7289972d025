"""``lane_dot``: a dot product in 8 vector lanes, as one LLVM loop over ``<8 x T>``.

Lane ``l`` accumulates the products of features ``j = l (mod 8)`` in increasing
``j``, with a separate multiply and add (no fused multiply-add), so every lane
is exactly the scalar partial sum of :mod:`._rows` and of ``tests/reference.py``.
Written as an intrinsic because LLVM does not vectorise the scalar form (numba's
index handling hides the pattern) and ``fastmath`` would reorder the sums; for
float32 it is about twice as fast, for float64 memory is the limit either way.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 8


@intrinsic
def lane_dot(typingctx, row, w, n):
    """The 8 lane sums of ``row[j] * w[j]`` over ``j < n``, lane ``j % 8``.

    The whole groups of 8 run as vectors; the last ``n % 8`` products are added
    to lanes 0, 1, ... one by one after them, as the scalar sums would.
    """
    if not (isinstance(row, types.Array) and isinstance(w, types.Array)
            and row.ndim == 1 and w.ndim == 1 and row.dtype == w.dtype
            and isinstance(row.dtype, types.Float)):
        return None
    lanes_type = types.UniTuple(row.dtype, LANES)
    signature = lanes_type(row, w, n)

    def codegen(context, builder, sig, args):
        row_type, w_type, _ = sig.args
        row_value, w_value, n_value = args
        vector = ir.VectorType(context.get_value_type(row_type.dtype), LANES)
        align = row_type.dtype.bitwidth // 8
        arrays = [(row_type, context.make_array(row_type)(context, builder, row_value)),
                  (w_type, context.make_array(w_type)(context, builder, w_value))]
        total = cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES))
        zero = ir.Constant(n_value.type, 0)
        step = ir.Constant(n_value.type, LANES)
        n_full = builder.sub(n_value, builder.srem(n_value, step))
        with cgutils.for_range_slice(builder, zero, n_full, step, inc=True) as (j, _):
            x, y = (builder.load(builder.bitcast(
                cgutils.get_item_pointer(context, builder, array_type, array, [j]),
                vector.as_pointer()), align=align) for array_type, array in arrays)
            builder.store(builder.fadd(builder.load(total), builder.fmul(x, y)), total)
        lanes = builder.load(total)
        sums = [cgutils.alloca_once_value(
            builder, builder.extract_element(lanes, ir.Constant(ir.IntType(32), lane)))
            for lane in range(LANES)]
        for lane in range(LANES - 1):  # the tail: feature n_full + lane to lane `lane`
            j = builder.add(n_full, ir.Constant(n_value.type, lane))
            with builder.if_then(builder.icmp_signed("<", j, n_value)):
                x, y = (builder.load(cgutils.get_item_pointer(context, builder, array_type,
                                                              array, [j]))
                        for array_type, array in arrays)
                builder.store(builder.fadd(builder.load(sums[lane]), builder.fmul(x, y)),
                              sums[lane])
        out = context.get_constant_undef(lanes_type)
        for lane in range(LANES):
            out = builder.insert_value(out, builder.load(sums[lane]), lane)
        return out

    return signature, codegen
