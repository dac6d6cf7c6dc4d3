// A C++ process whose time goes to a member function of a class template in
// a namespace: its profile frames must read as perf shows them, demangled
// ("prtest::Spinner<unsigned long>::spin(unsigned long)").
// Usage: cxxspin SECONDS
#include <chrono>
#include <cstdlib>

namespace prtest {
template <typename T> struct Spinner {
    __attribute__((noinline)) T spin(T n);
};

template <typename T> T Spinner<T>::spin(T n)
{
    volatile T x = 0;
    for (T i = 0; i < n; i++)
        x = x + i;
    return x;
}
} // namespace prtest

int main(int argc, char **argv)
{
    double secs = argc > 1 ? std::atof(argv[1]) : 2;
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
    prtest::Spinner<unsigned long> s;
    while (std::chrono::steady_clock::now() < end)
        s.spin(1000000);
    return 0;
}
