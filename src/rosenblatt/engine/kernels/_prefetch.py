"""Software prefetch for numba code: ``prefetch(array, index)`` hints that the cache
line holding ``array[index]`` will be read soon.

Shuffled epochs visit rows in an order the hardware prefetcher cannot guess; the
kernels know the next rows and ask for them ahead of time. A hint never changes
results, only timing.

The hint asks for the line in the level-2 cache (``prefetcht1``), not level 1: a
block streamed ahead (about 100 KiB of rows) does not fit in level 1 and evicted
itself before use, which made dense block-shuffled epochs about 1.6x slower.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Emit ``llvm.prefetch`` (read, locality 2: into L2, data cache) for ``array[index]``."""
    if not isinstance(array, types.Array) or array.ndim != 1:
        return None
    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        arr = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, arr, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        hint_type = ir.FunctionType(
            ir.VoidType(), [byte_pointer, ir.IntType(32), ir.IntType(32), ir.IntType(32)]
        )
        hint = cgutils.get_or_insert_function(builder.module, hint_type, "llvm.prefetch.p0i8")
        flag = lambda value: ir.Constant(ir.IntType(32), value)  # noqa: E731
        builder.call(hint, [builder.bitcast(pointer, byte_pointer), flag(0), flag(2), flag(1)])
        return context.get_dummy_value()

    return signature, codegen
