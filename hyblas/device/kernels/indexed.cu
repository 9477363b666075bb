// hyblas: a vector gathered or scattered by a list of positions (hyblas/device/indexed.py),
// one pass each, the list checked on the way. ${W} is an unsigned integer type of the
// values' size: the bits are copied, never converted. Specialized per size by string.Template.
//
// status (zero at the launch): bit 0 set for a position outside [0, extent), bit 1 for a
// position listed twice (the scatter only; `claims`, zero at the launch, marks each one).

typedef ${W} hyblas_w;

// out[k] = values[ids[k]], out_present[k] = present[ids[k]]
__global__ void hyblas_gather(long long count, const long long* __restrict__ ids,
                              long long extent, const hyblas_w* __restrict__ values,
                              const bool* __restrict__ present, hyblas_w* __restrict__ out,
                              bool* __restrict__ out_present, unsigned int* status) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
        const long long id = ids[k];
        if (id < 0 || id >= extent) {
            atomicOr(status, 1u);
            out_present[k] = false;
            continue;
        }
        out[k] = values[id];
        out_present[k] = present[id];
    }
}

// values[ids[k]] = x[k], present[ids[k]] = x_present[k] (into copies made before the launch)
__global__ void hyblas_scatter(long long count, const long long* __restrict__ ids,
                               long long extent, const hyblas_w* __restrict__ x,
                               const bool* __restrict__ x_present, hyblas_w* __restrict__ values,
                               bool* __restrict__ present, unsigned int* claims,
                               unsigned int* status) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
        const long long id = ids[k];
        if (id < 0 || id >= extent) {
            atomicOr(status, 1u);
            continue;
        }
        if (atomicExch(claims + id, 1u) != 0u) {  // listed twice: the result is thrown away
            atomicOr(status, 2u);
            continue;
        }
        values[id] = x[k];
        present[id] = x_present[k];
    }
}
