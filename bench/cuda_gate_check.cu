// The CUDA gate (src/sdk/cuda) on a real NVIDIA GPU: does a program built
// with nvcc (the runtime API, static libcudart) launch through the names
// the gate intercepts, and what does a gated launch cost? Run by
// bench/cuda_gate_check.sh, with and without the gate preloaded, with and
// without a batond; this program only launches and times.
//
//   cuda_gate_check MODE N
//     MODE empty: N launches of an empty kernel, each followed by a
//                 cudaStreamSynchronize (so the ungated run pays the
//                 round trip the gate makes every launch pay);
//     MODE spin:  N launches of a kernel that spins for about 1 ms;
//     MODE ex:    as empty, through cudaLaunchKernelEx (cuLaunchKernelEx);
//     MODE probe: GPU grid's probe (an empty kernel, synchronised) N times
//                 back to back, then N times after a 16.7-ms sleep (the
//                 probe loop's rest), the first and a second one right
//                 after it; prints the median and p95 of each.
//   prints: MODE N median_us p99_us total_s
//   CGC_HOLD_MS=M: stay M ms after the launches (and the printed line),
//   so that batond's status can be read while the tenant is registered.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

__global__ void empty_kernel(int *out)
{
	if (out && threadIdx.x == 0 && blockIdx.x == 0)
		out[0] = 1;
}

__global__ void spin_kernel(long long cycles, int *out)
{
	long long start = clock64();
	while (clock64() - start < cycles)
		;
	if (threadIdx.x == 0 && blockIdx.x == 0)
		out[0] += 1;
}

static void check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "cuda_gate_check: %s: %s\n", what,
		        cudaGetErrorString(e));
		exit(1);
	}
}

static double probe_us(cudaStream_t s, int *out)
{
	auto a = std::chrono::steady_clock::now();
	empty_kernel<<<1, 1, 0, s>>>(out);
	check(cudaStreamSynchronize(s), "probe");
	return std::chrono::duration<double, std::micro>(
	           std::chrono::steady_clock::now() - a)
	    .count();
}

static void summary(const char *what, std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	printf("probe %-22s median %.2f us p95 %.2f us\n", what, v[v.size() / 2],
	       v[(size_t)(0.95 * (v.size() - 1))]);
}

static int probe_idle(cudaStream_t s, int *out, int n)
{
	std::vector<double> hot, first, second;
	probe_us(s, out); /* warm-up */
	for (int i = 0; i < n; i++)
		hot.push_back(probe_us(s, out));
	for (int i = 0; i < n; i++) {
		std::this_thread::sleep_for(std::chrono::microseconds(16667));
		first.push_back(probe_us(s, out));
		second.push_back(probe_us(s, out));
	}
	summary("back to back", hot);
	summary("after 16.7 ms, first", first);
	summary("after 16.7 ms, second", second);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cuda_gate_check empty|spin|ex N\n");
		return 2;
	}
	const char *mode = argv[1];
	int n = atoi(argv[2]);
	if (n < 1 || (strcmp(mode, "empty") && strcmp(mode, "spin") &&
	              strcmp(mode, "ex") && strcmp(mode, "probe"))) {
		fprintf(stderr, "cuda_gate_check: bad mode or count\n");
		return 2;
	}
	int *out;
	check(cudaMalloc(&out, sizeof(int)), "cudaMalloc");
	check(cudaMemset(out, 0, sizeof(int)), "cudaMemset");
	cudaStream_t s;
	check(cudaStreamCreate(&s), "cudaStreamCreate");
	int clock_khz = 0;
	check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0),
	      "clock rate");
	long long cycles = (long long)clock_khz; /* about 1 ms */
	if (!strcmp(mode, "probe"))
		return probe_idle(s, out, n);
	std::vector<double> us;
	us.reserve(n);
	auto t0 = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++) {
		auto a = std::chrono::steady_clock::now();
		if (!strcmp(mode, "spin")) {
			spin_kernel<<<1, 32, 0, s>>>(cycles, out);
		} else if (!strcmp(mode, "ex")) {
			cudaLaunchConfig_t cfg = {};
			cfg.gridDim = dim3(1);
			cfg.blockDim = dim3(32);
			cfg.stream = s;
			check(cudaLaunchKernelEx(&cfg, empty_kernel, out),
			      "cudaLaunchKernelEx");
		} else {
			empty_kernel<<<1, 32, 0, s>>>(out);
		}
		check(cudaGetLastError(), "launch");
		check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
		auto b = std::chrono::steady_clock::now();
		us.push_back(std::chrono::duration<double, std::micro>(b - a)
		                 .count());
	}
	double total = std::chrono::duration<double>(
	                   std::chrono::steady_clock::now() - t0)
	                   .count();
	int host = 0;
	check(cudaMemcpy(&host, out, sizeof(int), cudaMemcpyDeviceToHost),
	      "cudaMemcpy");
	if (!strcmp(mode, "spin") && host != n) {
		fprintf(stderr, "cuda_gate_check: %d of %d spins ran\n", host,
		        n);
		return 1;
	}
	std::sort(us.begin(), us.end());
	printf("%s %d %.2f %.2f %.3f\n", mode, n, us[us.size() / 2],
	       us[(size_t)(0.99 * (us.size() - 1))], total);
	fflush(stdout);
	const char *hold = getenv("CGC_HOLD_MS");
	if (hold)
		std::this_thread::sleep_for(
		    std::chrono::milliseconds(atoi(hold)));
	return 0;
}
