#include "dma/fault_guard.hpp"

#include <csetjmp>
#include <csignal>
#include <cstring>

#include <pthread.h>

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

// Installs the handler once for every guarded access: a second install would save our own
// handler as the "previous" one. A function-local static, not std::call_once: its check on
// every later copy is one load, where call_once sets thread-locals and calls pthread_once.
void ensure_handler() {
  [[maybe_unused]] static const bool installed = (install_handler(), true);
}

// The jump buffer does not save the signal mask: saving it is a system call on every copy of
// the data path. The kernel blocks SIGBUS while the handler runs, so the jump out of it
// leaves SIGBUS blocked; only the fault path pays to unblock it.
void unblock_sigbus() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGBUS);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

template <typename Access>
bool guarded(Access&& access) {
  ensure_handler();
  sigjmp_buf recovery;
  if (sigsetjmp(recovery, 0) != 0) {
    t_recovery = nullptr;
    unblock_sigbus();
    return false;
  }
  t_recovery = &recovery;
  access();
  t_recovery = nullptr;
  return true;
}

} // namespace

bool guarded_copy(void* dst, const void* src, size_t size) {
  return guarded([&] { std::memcpy(dst, src, size); });
}

bool guarded_store64(void* dst, uint64_t value) {
  // An aligned atomic store is one machine store: a reader sees the old or the new bytes.
  return guarded([&] { __atomic_store_n(static_cast<uint64_t*>(dst), value, __ATOMIC_RELEASE); });
}

} // namespace ornic
