// hyblas: an improving round's state update over bitmaps in one pass (hyblas/traversal/improve.py):
// where reached[i] is present and the state has no entry, or add(reached, state) differs from
// the state's value, that value goes into the state and into the round's improved vector.
// Specialized per value type ${Z} and add operator ${ADD} (in x = reached, y = state) by
// string.Template.
//
// improved / improved_present are written at every position (values only where improved).
// counts (zeros at the launch): [0] += improved entries, [1] += the state's entries after.

typedef ${Z} hyblas_z;

__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }

__global__ void hyblas_improve_bitmap(long long n, const hyblas_z* __restrict__ reached,
                                      const bool* __restrict__ reached_present,
                                      hyblas_z* __restrict__ state,
                                      bool* __restrict__ state_present,
                                      hyblas_z* __restrict__ improved,
                                      bool* __restrict__ improved_present,
                                      unsigned long long* counts) {
    unsigned long long found = 0, entries = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        bool had = state_present[i], better = false;
        if (reached_present[i]) {
            const hyblas_z r = reached[i];
            hyblas_z combined = r;
            if (had) {
                const hyblas_z s = state[i];
                combined = hyblas_add(r, s);
                better = !(combined == s);  // a NaN result differs, as NumPy's != says
            } else {
                better = true;
            }
            if (better) {
                state[i] = combined;
                if (!had) state_present[i] = true;
            }
            improved[i] = better ? combined : (hyblas_z)0;
        } else {
            improved[i] = (hyblas_z)0;  // every value written: readers gather before flags
        }
        improved_present[i] = better;
        found += better;
        entries += had || better;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        found += __shfl_down_sync(0xffffffffu, found, offset);
        entries += __shfl_down_sync(0xffffffffu, entries, offset);
    }
    if ((threadIdx.x & 31) == 0 && (found || entries)) {
        atomicAdd(&counts[0], found);
        atomicAdd(&counts[1], entries);
    }
}
