/* numba's runtime helpers for a ctypes-loaded .so built from numba object code:
   the same inclusion trick as numba/pycc/modulemixin.c, without a Python module. */
#include "_numba_common.h"
#include "_pymodule.h"
#define NUMBA_EXPORT_FUNC(_rettype) VISIBILITY_HIDDEN _rettype
#define NUMBA_EXPORT_DATA(_vartype) VISIBILITY_HIDDEN _vartype
#define PYCC_COMPILING
#include "_helperlib.c"
int64_t _numba_hashsecret_siphash_k0;
int64_t _numba_hashsecret_siphash_k1;
int64_t _numba_hashsecret_djbx33a_suffix;
static void *wrap_import_array(void) { import_array(); return (void *) 1; }
/* call once with the GIL held (ctypes.PyDLL) if a kernel may touch numpy's C API */
int rb_runtime_init(void) { return wrap_import_array() != NULL; }
/* numba's NRT (nrt.cpp) keeps its allocator in a static struct set by NRT_MemSys_init;
   kernels that allocate (np.zeros in nopython code) need it called once. */
void NRT_MemSys_init(void);
__attribute__((visibility("default"))) void rb_nrt_init(void) { NRT_MemSys_init(); }
