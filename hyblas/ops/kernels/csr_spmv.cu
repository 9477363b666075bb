// hyblas generic CSR SpMV for any semiring: one warp per output row.
//
// Specialized per (semiring, operand type) by string.Template substitution of
//   ${T} operand type, ${Z} result type, ${MULT} / ${ADD} expressions in x and y,
//   ${IDENTITY} the add monoid's identity, ${HAS_TERMINAL} 0/1 and ${TERMINAL} its terminal,
// and instantiated per index type I and operand order FLIP (vxm multiplies u_j * A_ij).
// A row's output is present iff at least one of its entries meets a present input.

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }

// __shfl_down_sync has no overloads for 1- and 2-byte types: move them as int.
template <typename V> __device__ __forceinline__ V hyblas_shfl_down(V v, int delta) {
    return __shfl_down_sync(0xffffffffu, v, delta);
}
template <> __device__ __forceinline__ bool hyblas_shfl_down<bool>(bool v, int delta) {
    return __shfl_down_sync(0xffffffffu, (int)v, delta) != 0;
}
template <> __device__ __forceinline__ signed char hyblas_shfl_down<signed char>(signed char v, int delta) {
    return (signed char)__shfl_down_sync(0xffffffffu, (int)v, delta);
}
template <> __device__ __forceinline__ unsigned char hyblas_shfl_down<unsigned char>(unsigned char v, int delta) {
    return (unsigned char)__shfl_down_sync(0xffffffffu, (int)v, delta);
}
template <> __device__ __forceinline__ short hyblas_shfl_down<short>(short v, int delta) {
    return (short)__shfl_down_sync(0xffffffffu, (int)v, delta);
}
template <> __device__ __forceinline__ unsigned short hyblas_shfl_down<unsigned short>(unsigned short v, int delta) {
    return (unsigned short)__shfl_down_sync(0xffffffffu, (int)v, delta);
}

template <typename I, bool FLIP>
__global__ void hyblas_spmv_csr_warp(
    const long long nrows,
    const I* __restrict__ indptr,
    const I* __restrict__ indices,
    const hyblas_t* __restrict__ a,
    const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present,
    hyblas_z* __restrict__ out,
    bool* __restrict__ out_present)
{
    const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (row >= nrows) return;  // uniform per warp: the shuffles below see all 32 lanes
    const I begin = indptr[row];
    const I end = indptr[row + 1];
    hyblas_z acc = (hyblas_z)(${IDENTITY});
    bool found = false;
    for (I k = begin + lane; k < end; k += 32) {
        const I j = indices[k];
        if (!u_present[j]) continue;
        const hyblas_z p = FLIP ? hyblas_mult(u[j], a[k]) : hyblas_mult(a[k], u[j]);
        acc = found ? hyblas_add(acc, p) : p;
        found = true;
#if ${HAS_TERMINAL}
        if (acc == (hyblas_z)(${TERMINAL})) break;  // nothing can change a terminal value
#endif
    }
    for (int delta = 16; delta > 0; delta >>= 1) {
        const hyblas_z other = hyblas_shfl_down(acc, delta);
        const bool other_found = hyblas_shfl_down(found, delta);
        if (other_found) {
            acc = found ? hyblas_add(acc, other) : other;
            found = true;
        }
    }
    if (lane == 0) {
        out[row] = acc;
        out_present[row] = found;
    }
}
