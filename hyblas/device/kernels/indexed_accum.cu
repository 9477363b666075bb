// hyblas: a vector scattered by a list of positions into another, combined by a monoid
// (hyblas/device/indexed.py): z[ids[k]] = z[ids[k]] ${ADD} x[k] for every present x[k],
// repeated positions folded in any order (the monoid's operator is associative and
// commutative). z holds the monoid's identity where it had no entry before the launch.
// Specialized per value type ${Z} (4 or 8 bytes, held bit for bit in its accumulator word
// ${WORD}) and monoid by string.Template; ${ATOMIC} combines v into *slot.
//
// status (zero at the launch): bit 0 set for a position outside [0, extent).

typedef ${Z} hyblas_z;
typedef ${WORD} hyblas_word;

__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }
__device__ __forceinline__ hyblas_word hyblas_to_word(hyblas_z v) { ${TO_WORD} }
__device__ __forceinline__ hyblas_z hyblas_from_word(hyblas_word w) { ${FROM_WORD} }

__global__ void hyblas_scatter_accum(long long count, const long long* __restrict__ ids,
                                     long long extent, const hyblas_z* __restrict__ x,
                                     const bool* __restrict__ x_present, hyblas_word* z,
                                     bool* z_present, unsigned int* status) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
        const long long id = ids[k];
        if (id < 0 || id >= extent) {
            atomicOr(status, 1u);
            continue;
        }
        if (!x_present[k]) continue;
        const hyblas_z v = x[k];
        hyblas_word* slot = z + id;
        ${ATOMIC}
        z_present[id] = true;
    }
}
