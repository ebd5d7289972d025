"""Uniform access to the epoch by route: jit | pycc | ctypes."""
import numpy as np


def get(route):
    if route == 'jit':
        from jitmod import epoch
        return epoch
    if route == 'pycc':
        from aot_epoch import epoch
        return epoch
    if route == 'ctypes':
        from ctypes_epoch import epoch
        return epoch
    if route == 'pycc_host':
        from aot_epoch_host import epoch
        return epoch
    if route == 'ctypes_generic':
        import ctypes_epoch, ctypes, json
        lib = ctypes.CDLL('/tmp/aot/libc_epoch_generic.so'); f = lib[json.load(open('/tmp/aot/c_epoch.json'))['symbol']]
        f.argtypes, f.restype = ctypes_epoch._f.argtypes, ctypes.c_int64
        ctypes_epoch._f = f
        return ctypes_epoch.epoch
    raise ValueError(route)
