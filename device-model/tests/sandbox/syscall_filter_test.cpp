// The allow-list in a forked child (a filter cannot be removed): what the model does after
// setup still works, and what it never does ends the process with SIGSYS and a report.
#include <algorithm>
#include <csignal>
#include <fstream>
#include <string>

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "sandbox/syscall_filter.hpp"

namespace ornic::sandbox {
namespace {

bool allows(const std::string& name) {
  const auto calls = allowed_calls();
  return std::find(calls.begin(), calls.end(), name) != calls.end();
}

std::string status_field(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0)
      return line.substr(line.find_first_not_of(" \t", field.size() + 1));
  return "";
}

// Everything the model needs after setup, once each: exits 0 when all of it worked.
[[noreturn]] void confined_work() {
  confine(Mode::enforce);
  bool ok = status_field("Seccomp") == "2" && status_field("NoNewPrivs") == "1";
  const int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  const uint64_t one = 1;
  ok = ok && efd >= 0 && write(efd, &one, sizeof(one)) == sizeof(one);
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ok = ok && page != MAP_FAILED && munmap(page, 4096) == 0;
  const int unix_socket = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  ok = ok && unix_socket >= 0 && close(unix_socket) == 0;
  _exit(ok ? 0 : 1);
}

TEST(SyscallFilter, ListHasWhatTheModelNeedsAndNothingDangerous) {
  for (const char* needed : {"recvmsg", "sendmsg", "mmap", "munmap", "msync", "eventfd2",
                             "epoll_pwait2", "poll", "openat", "rename", "unlink", "exit_group"})
    EXPECT_TRUE(allows(needed)) << needed;
  for (const char* never : {"execve", "execveat", "fork", "vfork", "clone3", "mount", "bind",
                            "listen", "kill", "bpf", "io_uring_setup", "userfaultfd",
                            "process_vm_writev", "keyctl", "init_module", "setns", "unshare"})
    EXPECT_FALSE(allows(never)) << never;
}

TEST(SyscallFilter, ConfinedProcessStillWorks) {
  EXPECT_EXIT(confined_work(), testing::ExitedWithCode(0), "");
}

[[noreturn]] void confined_off() {
  const bool ok = confine(Mode::off) == 0 && status_field("Seccomp") == "0";
  _exit(ok ? 0 : 1);
}

[[noreturn]] void confined_mount() {
  confine(Mode::enforce);
  syscall(SYS_mount, nullptr, nullptr, nullptr, 0L, nullptr);
  _exit(0);
}

[[noreturn]] void confined_inet_socket() {
  confine(Mode::enforce);
  socket(AF_INET, SOCK_DGRAM, 0);
  _exit(0);
}

[[noreturn]] void confined_exec_mapping() {
  confine(Mode::enforce);
  mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  _exit(0);
}

[[noreturn]] void confined_execve() {
  confine(Mode::enforce);
  char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
  execv("/bin/true", argv);
  _exit(0);
}

TEST(SyscallFilter, OffInstallsNothing) {
  EXPECT_EXIT(confined_off(), testing::ExitedWithCode(0), "");
}

TEST(SyscallFilter, ForbiddenCallDiesOfSigsysWithItsName) {
  EXPECT_EXIT(confined_mount(), testing::KilledBySignal(SIGSYS),
              "forbidden system call mount \\([0-9]+\\)");
}

TEST(SyscallFilter, OnlyUnixSocketsAfterConfinement) {
  EXPECT_EXIT(confined_inet_socket(), testing::KilledBySignal(SIGSYS),
              "forbidden system call socket");
}

TEST(SyscallFilter, NoExecutableMemoryAfterConfinement) {
  EXPECT_EXIT(confined_exec_mapping(), testing::KilledBySignal(SIGSYS),
              "forbidden system call mmap");
}

TEST(SyscallFilter, NoExecAfterConfinement) {
  EXPECT_EXIT(confined_execve(), testing::KilledBySignal(SIGSYS), "forbidden system call execve");
}

} // namespace
} // namespace ornic::sandbox
