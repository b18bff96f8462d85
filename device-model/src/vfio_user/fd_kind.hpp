// Checks on file descriptors received from the client.
#pragma once

namespace ornic::vfio_user {

// True if fd is an eventfd. Writing to anything else (a full pipe, a socket) could
// block the event loop, so interrupt fds must pass this.
bool is_eventfd(int fd);

} // namespace ornic::vfio_user
