#include "dma/fault_guard.hpp"

#include <csetjmp>
#include <csignal>
#include <cstring>
#include <mutex>

namespace ornic {
namespace {

thread_local sigjmp_buf* t_recovery = nullptr;
struct sigaction g_previous_handler;

extern "C" void on_sigbus(int, siginfo_t*, void*) {
  if (t_recovery != nullptr)
    siglongjmp(*t_recovery, 1);
  // Not a guarded copy: put the previous disposition back; returning re-runs the faulting
  // access, which then gets the default (fatal) treatment.
  sigaction(SIGBUS, &g_previous_handler, nullptr);
}

void install_handler() {
  struct sigaction sa{};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, &g_previous_handler);
}

} // namespace

bool guarded_copy(void* dst, const void* src, size_t size) {
  static std::once_flag installed;
  std::call_once(installed, install_handler);
  sigjmp_buf recovery;
  if (sigsetjmp(recovery, 1) != 0) {
    t_recovery = nullptr;
    return false;
  }
  t_recovery = &recovery;
  std::memcpy(dst, src, size);
  t_recovery = nullptr;
  return true;
}

} // namespace ornic
