// hyblas: a sparse vector's entries written into a bitmap whose arrays are zeroed before the
// launch (hyblas/device/scatter.py): values[ids[i]] = x[i], present[ids[i]] = true, for
// the `count` entries (ids without repeats). ${W} is an unsigned integer type of the values'
// size: the bits are copied, never converted. Specialized per size by string.Template.

typedef ${W} hyblas_w;

__global__ void hyblas_scatter_bitmap(long long count, const long long* __restrict__ ids,
                                      const hyblas_w* __restrict__ x,
                                      hyblas_w* __restrict__ values,
                                      bool* __restrict__ present) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const long long id = ids[i];
        values[id] = x[i];
        present[id] = true;
    }
}
