// hyblas: a full vector's fresh bitmap arrays written in one kernel (hyblas/device/fill.py):
// every byte of `values` from a 16-byte pattern (the value repeated, so any value size that
// divides 16 lines up), every presence flag true. Both arrays are fresh allocations, 16-byte
// aligned, so the bulk goes in 16-byte stores; the tails byte by byte. CuPy's full and ones
// take a thread per element and two launches, where these writes need one launch of wide stores.

__global__ void hyblas_fill_bitmap(unsigned char* __restrict__ values, const long long value_bytes,
                                   const unsigned int p0, const unsigned int p1,
                                   const unsigned int p2, const unsigned int p3,
                                   bool* __restrict__ present, const long long count) {
    const uint4 pattern = make_uint4(p0, p1, p2, p3);
    const uint4 ones = make_uint4(0x01010101u, 0x01010101u, 0x01010101u, 0x01010101u);
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long value_chunks = value_bytes / 16;
    const long long flag_chunks = count / 16;
    const long long chunks = value_chunks > flag_chunks ? value_chunks : flag_chunks;
    for (long long k = first; k < chunks; k += stride) {
        if (k < value_chunks) reinterpret_cast<uint4*>(values)[k] = pattern;
        if (k < flag_chunks) reinterpret_cast<uint4*>(present)[k] = ones;
    }
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&pattern);
    for (long long k = value_chunks * 16 + first; k < value_bytes; k += stride) {
        values[k] = bytes[k % 16];
    }
    for (long long k = flag_chunks * 16 + first; k < count; k += stride) present[k] = true;
}
