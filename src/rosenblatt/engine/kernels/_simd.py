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

from ..._core.kernel_constants import LANES

#: Groups of LANES products a turn of ``lane_dot``'s loop adds (one after another)
UNROLL = 4


@intrinsic
def lane_dot(typingctx, row, w, n):
    """The 8 lane sums of ``row[j] * w[j]`` over ``j < n``, lane ``j % 8``.

    The whole groups of 8 run as vectors; the last ``n % 8`` products are added
    to lanes 0, 1, ... one by one after them, as the scalar sums would.
    """
    if not (
        isinstance(row, types.Array)
        and isinstance(w, types.Array)
        and row.ndim == 1
        and w.ndim == 1
        and row.dtype == w.dtype
        and isinstance(row.dtype, types.Float)
    ):
        return None
    lanes_type = types.UniTuple(row.dtype, LANES)
    signature = lanes_type(row, w, n)

    def codegen(context, builder, sig, args):
        row_type, w_type, _ = sig.args
        row_value, w_value, n_value = args
        vector = ir.VectorType(context.get_value_type(row_type.dtype), LANES)
        align = row_type.dtype.bitwidth // 8
        arrays = [
            (row_type, context.make_array(row_type)(context, builder, row_value)),
            (w_type, context.make_array(w_type)(context, builder, w_value)),
        ]
        total = cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES))
        zero = ir.Constant(n_value.type, 0)
        step = ir.Constant(n_value.type, LANES)
        n_full = builder.sub(n_value, builder.srem(n_value, step))

        def add_group(j):  # total += row[j:j+8] * w[j:j+8]
            x, y = (
                builder.load(
                    builder.bitcast(
                        cgutils.get_item_pointer(context, builder, array_type, array, [j]),
                        vector.as_pointer(),
                    ),
                    align=align,
                )
                for array_type, array in arrays
            )
            builder.store(builder.fadd(builder.load(total), builder.fmul(x, y)), total)

        # UNROLL groups a turn, then one at a time: the same additions in the same order,
        # with a quarter of the loop's own instructions (LLVM leaves this loop rolled)
        span = ir.Constant(n_value.type, LANES * UNROLL)
        n_spans = builder.sub(n_value, builder.srem(n_value, span))
        with cgutils.for_range_slice(builder, zero, n_spans, span, inc=True) as (j, _):
            for k in range(UNROLL):
                add_group(builder.add(j, ir.Constant(n_value.type, k * LANES)))
        with cgutils.for_range_slice(builder, n_spans, n_full, step, inc=True) as (j, _):
            add_group(j)
        lanes = builder.load(total)
        sums = [
            cgutils.alloca_once_value(
                builder, builder.extract_element(lanes, ir.Constant(ir.IntType(32), lane))
            )
            for lane in range(LANES)
        ]
        for lane in range(LANES - 1):  # the tail: feature n_full + lane to lane `lane`
            j = builder.add(n_full, ir.Constant(n_value.type, lane))
            with builder.if_then(builder.icmp_signed("<", j, n_value)):
                x, y = (
                    builder.load(cgutils.get_item_pointer(context, builder, array_type, array, [j]))
                    for array_type, array in arrays
                )
                builder.store(
                    builder.fadd(builder.load(sums[lane]), builder.fmul(x, y)), sums[lane]
                )
        out = context.get_constant_undef(lanes_type)
        for lane in range(LANES):
            out = builder.insert_value(out, builder.load(sums[lane]), lane)
        return out

    return signature, codegen


@intrinsic
def lane_gather_dot(typingctx, data, indices, start, stop, w):
    """The 8 lane sums of ``data[p] * w[indices[p]]`` for ``start <= p < stop``, lane
    ``indices[p] % 8``: a CSR row's dot product summed as ``lane_dot`` sums a dense
    row (zeros add nothing), so both give the same bits.

    The lanes live in one vector register; each product is added to its lane
    only (a select keeps the other lanes as they are), in increasing ``p``,
    instead of going through an 8-element array in memory, whose loads and stores
    the CPU must keep in order.
    """
    if not (
        isinstance(data, types.Array)
        and isinstance(w, types.Array)
        and isinstance(indices, types.Array)
        and isinstance(indices.dtype, types.Integer)
        and data.ndim == 1
        and w.ndim == 1
        and indices.ndim == 1
        and isinstance(w.dtype, types.Float)
    ):
        return None
    lanes_type = types.UniTuple(w.dtype, LANES)
    signature = lanes_type(data, indices, types.intp, types.intp, w)

    def codegen(context, builder, sig, args):
        data_type, indices_type, _, _, w_type = sig.args
        data_value, indices_value, start, stop, w_value = args
        element = context.get_value_type(w_type.dtype)
        vector = ir.VectorType(element, LANES)
        lane_ids = ir.Constant(ir.VectorType(ir.IntType(64), LANES), list(range(LANES)))
        data_array = context.make_array(data_type)(context, builder, data_value)
        indices_array = context.make_array(indices_type)(context, builder, indices_value)
        w_array = context.make_array(w_type)(context, builder, w_value)
        total = cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES))
        with cgutils.for_range_slice(
            builder, start, stop, ir.Constant(start.type, 1), inc=True
        ) as (p, _):
            column = builder.load(
                cgutils.get_item_pointer(context, builder, indices_type, indices_array, [p])
            )
            column = context.cast(builder, column, indices_type.dtype, types.int64)
            value = builder.load(
                cgutils.get_item_pointer(context, builder, data_type, data_array, [p])
            )
            value = context.cast(builder, value, data_type.dtype, w_type.dtype)
            weight = builder.load(
                cgutils.get_item_pointer(context, builder, w_type, w_array, [column])
            )
            product = builder.fmul(value, weight)
            lane = builder.and_(column, ir.Constant(ir.IntType(64), LANES - 1))
            splat_lane = builder.shuffle_vector(
                builder.insert_element(
                    ir.Constant(ir.VectorType(ir.IntType(64), LANES), None),
                    lane,
                    ir.Constant(ir.IntType(32), 0),
                ),
                ir.Constant(ir.VectorType(ir.IntType(64), LANES), None),
                ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES),
            )
            splat_product = builder.shuffle_vector(
                builder.insert_element(
                    ir.Constant(vector, None), product, ir.Constant(ir.IntType(32), 0)
                ),
                ir.Constant(vector, None),
                ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES),
            )
            current = builder.load(total)
            chosen = builder.icmp_unsigned("==", lane_ids, splat_lane)
            builder.store(
                builder.select(chosen, builder.fadd(current, splat_product), current), total
            )
        lanes = builder.load(total)
        out = context.get_constant_undef(lanes_type)
        for lane in range(LANES):
            out = builder.insert_value(
                out, builder.extract_element(lanes, ir.Constant(ir.IntType(32), lane)), lane
            )
        return out

    return signature, codegen


def _axpy_codegen(context, builder, steps, row_type, row_value, targets):
    """In place ``t[j] += step * row[j]`` for every ``(step, t)`` of ``steps`` and ``targets``
    (``(type, value)`` pairs), all in one pass over ``row``, 8 lanes at a time: each target
    gets the very operations it would get alone, in the same order."""
    vector = ir.VectorType(context.get_value_type(row_type.dtype), LANES)
    align = row_type.dtype.bitwidth // 8
    row_array = context.make_array(row_type)(context, builder, row_value)
    arrays = [(t_type, context.make_array(t_type)(context, builder, t)) for t_type, t in targets]
    n_value = builder.extract_value(row_array.shape, 0)
    splats = [
        builder.shuffle_vector(
            builder.insert_element(ir.Constant(vector, None), step, ir.Constant(ir.IntType(32), 0)),
            ir.Constant(vector, None),
            ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES),
        )
        for step in steps
    ]
    lanes = ir.Constant(n_value.type, LANES)
    n_full = builder.sub(n_value, builder.srem(n_value, lanes))
    zero = ir.Constant(n_value.type, 0)

    def pointer(array_type, array, j):
        return cgutils.get_item_pointer(context, builder, array_type, array, [j])

    with cgutils.for_range_slice(builder, zero, n_full, lanes, inc=True) as (j, _):
        x = builder.load(
            builder.bitcast(pointer(row_type, row_array, j), vector.as_pointer()), align=align
        )
        for splat, (t_type, t_array) in zip(splats, arrays):
            t_pointer = builder.bitcast(pointer(t_type, t_array, j), vector.as_pointer())
            y = builder.load(t_pointer, align=align)
            builder.store(builder.fadd(y, builder.fmul(splat, x)), t_pointer, align=align)
    one = ir.Constant(n_value.type, 1)
    with cgutils.for_range_slice(builder, n_full, n_value, one, inc=True) as (j, _):
        x = builder.load(pointer(row_type, row_array, j))
        for step, (t_type, t_array) in zip(steps, arrays):
            t_pointer = pointer(t_type, t_array, j)
            builder.store(builder.fadd(builder.load(t_pointer), builder.fmul(step, x)), t_pointer)
    return context.get_dummy_value()


def _axpy_types(step, row, w):
    return (
        isinstance(row, types.Array)
        and isinstance(w, types.Array)
        and row.ndim == 1
        and w.ndim == 1
        and row.dtype == w.dtype
        and isinstance(row.dtype, types.Float)
        and step == row.dtype
    )


@intrinsic
def lane_axpy(typingctx, step, row, w):
    """In place ``w[j] += step * row[j]`` for every ``j``, 8 lanes at a time.

    Each element gets a separate multiply and add (no fused multiply-add), exactly
    as the scalar loop does. The stores have the width of the loads in
    ``lane_dot``, so the next dot product can take the new weights straight from
    them: for float32, LLVM's own vector loop stored 16 lanes at a time, which the
    CPU cannot forward to 8-lane loads, and every update then waited for its
    stores to reach the cache.
    """
    if not _axpy_types(step, row, w):
        return None

    def codegen(context, builder, sig, args):
        step_value, row_value, w_value = args
        return _axpy_codegen(
            context, builder, [step_value], sig.args[1], row_value, [(sig.args[2], w_value)]
        )

    return types.void(step, row, w), codegen


@intrinsic
def lane_axpy2(typingctx, step, step2, row, w, u):
    """``lane_axpy(step, row, w)`` and ``lane_axpy(step2, row, u)`` in one pass over ``row``
    (the averaged perceptron's weights and averaging sums): the row is read once, and each
    of ``w`` and ``u`` gets exactly the operations ``lane_axpy`` gives it."""
    if not (_axpy_types(step, row, w) and _axpy_types(step2, row, u)):
        return None

    def codegen(context, builder, sig, args):
        step_value, step2_value, row_value, w_value, u_value = args
        targets = [(sig.args[3], w_value), (sig.args[4], u_value)]
        return _axpy_codegen(
            context, builder, [step_value, step2_value], sig.args[2], row_value, targets
        )

    return types.void(step, step2, row, w, u), codegen
