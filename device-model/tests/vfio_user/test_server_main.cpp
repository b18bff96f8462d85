// vfio_user_test_server: the vfio-user server with the small test device instead of the
// NIC, for interop tests against a real QEMU (qemu_interop_test.sh) independent of the
// NIC core. Runs until SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <string>

#include "common/event_loop.hpp"
#include "common/logging.hpp"
#include "common/test_function_model.hpp"
#include "vfio_user/server.hpp"

namespace {
ornic::EventLoop* g_loop = nullptr;
extern "C" void on_signal(int) {
  if (g_loop)
    g_loop->stop();
}
} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SOCKET_PATH\n", argv[0]);
    return 2;
  }
  ornic::setup_logging(spdlog::level::trace);
  ornic::EventLoop loop;
  ornic::testing::TestFunctionModel model;
  ornic::vfio_user::Server server(loop, model);
  server.listen(argv[1]);
  g_loop = &loop;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  loop.run();
  spdlog::info("test server: {} clients served, model saw {} BAR writes, {} resets",
               server.clients_served(), model.writes.size(), model.resets);
  return 0;
}
