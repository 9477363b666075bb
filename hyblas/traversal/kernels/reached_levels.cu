// hyblas device loop, levels rounds: after a stay, give every vertex it reached its round in the
// state's bitmap, in one pass over the vertices (hyblas/traversal/device_loop.py, _fill_levels).
// Specialized per state type ${V} by string.Template.
//
// The stay stamped round r's vertices offset - r, r = first .. last (hyblas/traversal/stamps.py);
// every other stamp is above offset - first (the state's) or below offset - last (older).

typedef ${V} hyblas_v;

__global__ void hyblas_reached_levels(long long n, const long long* stamp, long long first,
                                      long long last, long long offset, hyblas_v* values,
                                      bool* present) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const long long round = offset - stamp[i];
        if (round >= first && round <= last) {
            values[i] = (hyblas_v)round;
            present[i] = true;
        }
    }
}
