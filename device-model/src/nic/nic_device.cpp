#include "nic/nic_device.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "core/device_limits.hpp"
#include "ib/ib_framing.hpp"
#include "iwarp/cm/connection_manager.hpp"
#include "iwarp/qp/qp_engine.hpp"
#include "port/pfc_port.hpp"
#include "port/port.hpp"
#include "rdma/transport_engine.hpp"
#include "roce/roce_framing.hpp"

namespace ornic {
namespace {

// infiniband.rst, "Identity": EUI-64s from the MAC, the node GUID with the universal/local
// bit inverted (as a RoCE port's), the port GUID without, so that the two differ.
uint64_t eui64_of(const MacAddress& mac, bool invert_universal_local) {
  const uint8_t first = invert_universal_local ? static_cast<uint8_t>(mac[0] ^ 0x02) : mac[0];
  const std::array<uint8_t, 8> bytes{first, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]};
  uint64_t guid = 0;
  for (const uint8_t byte : bytes)
    guid = guid << 8 | byte;
  return guid;
}

void set_up_ib_port(NicCore& core, const NicConfig& config) {
  core.ib.enabled = true;
  core.ib.node_guid = eui64_of(config.mac, true);
  core.ib.port_guid = eui64_of(config.mac, false);
  core.ib.node_description = config.node_description;
  if (core.ib.node_description.empty()) {
    char text[32];
    std::snprintf(text, sizeof(text), "ornic %02x:%02x:%02x:%02x:%02x:%02x", config.mac[0],
                  config.mac[1], config.mac[2], config.mac[3], config.mac[4], config.mac[5]);
    core.ib.node_description = text;
  }
  core.ib.node_description.resize(std::min<size_t>(core.ib.node_description.size(), 64));
}

// The framing of the port's link layer; an InfiniBand port's identity is set up first.
std::unique_ptr<iba::Framing> make_framing(NicCore& core, const NicConfig& config) {
  if (config.link_layer != ORNIC_LINK_LAYER_IB)
    return std::make_unique<roce::RoceFraming>(core);
  set_up_ib_port(core, config);
  return std::make_unique<ib::IbFraming>(core);
}

} // namespace

// The composition root: the core (core/) holds the state every part shares and knows the
// transport (rdma/) and the device clock only through interfaces, and the transport knows
// its fabric's framing (roce/ or ib/) only through iba::Framing; this is where the concrete ones
// are built and plugged in, so no layer below includes one above it.
NicDevice::NicDevice(EventLoop& loop, const NicConfig& config)
    : port_(config.port), core_(config.mac), commands_(core_), admin_(loop, core_, commands_),
      eth_(loop, core_, config.port), doorbells_(core_, eth_),
      own_timer_(config.timer ? nullptr : std::make_unique<EventLoopTransportTimer>(loop)),
      framing_(make_framing(core_, config)), transport_(make_transport(loop, config)), loop_(loop) {
  core_.clock = config.timer ? config.timer : own_timer_.get();
  core_.iwarp = config.link_layer == ORNIC_LINK_LAYER_IWARP;
  if (core_.iwarp)
    set_up_iwarp();
  core_.transport = transport_.get();
  core_.faults = config.faults;
  core_.resources.set_limits(config.limits);
  core_.post_work = [&loop, ticket = lifetime_.ticket()](std::function<void()> work) {
    loop.post([ticket, work = std::move(work)] {
      if (ticket.valid())
        work();
    });
  };
  if (config.pfc != nullptr)
    attach_pfc(*config.pfc);
  core_.link_up = port_ != nullptr && port_->link_up();
  if (core_.is_ib())
    core_.ib_physical_link(core_.link_up);
  if (port_ != nullptr) {
    // An InfiniBand port's every packet is the transport's; an Ethernet port's frames go
    // to the Ethernet function, which hands RoCE to the transport.
    port_->set_receiver([this, ticket = lifetime_.ticket()](std::span<const std::byte> frame) {
      if (!ticket.valid())
        return;
      if (core_.is_ib()) {
        if (ready() && core_.transport != nullptr)
          core_.transport->receive(frame);
        return;
      }
      // iwarp-cm.rst, "Receive": TCP to the device's listeners and connections is the
      // connection manager's, everything else the Ethernet function's.
      if (iwarp_cm_ && ready() && iwarp_cm_->receive(frame))
        return;
      eth_.receive(frame);
    });
    port_->set_link_listener([this, ticket = lifetime_.ticket()](bool up) {
      if (ticket.valid())
        link_changed(up);
    });
  }
}

NicDevice::~NicDevice() {
  if (iwarp_cm_ && core_.clock != nullptr)
    core_.clock->disarm();
  core_.iwarp_cm = nullptr;
  if (iwarp_qps_ != nullptr)
    iwarp_qps_->set_io(nullptr);
  iwarp_cm_.reset();
  core_.transport = nullptr; // the transport goes first (members are destroyed in reverse)
  lifetime_.invalidate();
  if (port_ != nullptr) {
    port_->set_receiver(nullptr);
    port_->set_link_listener(nullptr);
  }
}

// The transport of the port's link layer: an iWARP port's QPs run RDMAP over the connection
// manager's TCP (iwarp-cm.rst), the others the IB transport in the port's framing.
std::unique_ptr<TransportHooks> NicDevice::make_transport(EventLoop& loop,
                                                          const NicConfig& config) {
  if (config.link_layer == ORNIC_LINK_LAYER_IWARP) {
    auto engine = std::make_unique<iwarp::qp::QpEngine>(core_);
    iwarp_qps_ = engine.get();
    return engine;
  }
  return std::make_unique<TransportEngine>(loop, core_, config.port,
                                           config.timer ? *config.timer : *own_timer_, *framing_);
}

// The connection manager sends through the port like the Ethernet function, reports on the
// async EQ and reads and writes host memory for private data and IW_QUERY_CONN; its
// established connections carry the QP engine's streams.
void NicDevice::set_up_iwarp() {
  iwarp::cm::CmEnvironment env;
  env.transmit = [this](std::span<const std::byte> frame) {
    if (port_ != nullptr && core_.link_up && !core_.fatal())
      port_->send(frame);
  };
  env.post_event = [this](const ornic_eqe_iw& event) {
    ornic_eqe eqe;
    static_assert(sizeof(eqe) == sizeof(event));
    std::memcpy(&eqe, &event, sizeof(eqe));
    core_.post_async_entry(eqe);
  };
  env.dma_read = [this](uint64_t addr, std::span<std::byte> out) {
    return core_.memory().read(addr, out);
  };
  env.dma_write = [this](uint64_t addr, std::span<const std::byte> in) {
    return core_.memory().write(addr, in);
  };
  env.mac = [this] { return core_.mac; };
  env.count = [this](ornic_counter_id id, uint64_t by) { core_.counters.inc(id, by); };
  iwarp_cm_ = std::make_unique<iwarp::cm::ConnectionManager>(std::move(env), core_.mac);
  core_.iwarp_cm = iwarp_cm_.get();
  if (iwarp_qps_ != nullptr) {
    iwarp_cm_->set_qp_streams(iwarp_qps_);
    iwarp_qps_->set_io(iwarp_cm_.get());
  }
  iwarp_tick();
}

// lwIP's timers and the MPA timeouts run on the device clock, one tick per TCP timer period.
void NicDevice::iwarp_tick() {
  const int64_t now_ns = core_.clock->now_ns();
  iwarp_cm_->advance(std::chrono::steady_clock::time_point{std::chrono::nanoseconds(now_ns)});
  // An iWARP port has no IB transport: the device clock's one wakeup is the tick's.
  const int64_t period = std::chrono::nanoseconds(iwarp::tcp::TcpEngine::kTickPeriod).count();
  core_.clock->arm(now_ns + period, [this, ticket = lifetime_.ticket()] {
    if (ticket.valid())
      iwarp_tick();
  });
}

// The PFC engine follows SET_PORT_QOS: the priorities --port-pfc made lossless stay so (the
// port's own configuration), the driver's DCB settings add theirs, and it classifies frames
// by the DSCP map. It is the one place frames to and from the wire are classified and
// counted: QUERY_PORT_QOS reads its counters.
void NicDevice::attach_pfc(PfcPort& pfc) {
  const uint8_t fixed = pfc.pfc_enabled();
  pfc.set_dscp_map(core_.qos.dscp_map());
  core_.qos.on_config_change = [&pfc, fixed, &qos = core_.qos](const QosConfig& config) {
    pfc.set_pfc_enabled(static_cast<uint8_t>(fixed | config.pfc_enable));
    pfc.set_dscp_map(qos.dscp_map());
  };
  core_.qos.port_source = [&pfc](unsigned prio) {
    const PfcPriorityCounters c = pfc.priority_counters(prio);
    return PriorityCounters{c.tx_frames,
                            c.tx_bytes,
                            c.rx_frames,
                            c.rx_bytes,
                            c.tx_pause,
                            c.rx_pause,
                            c.tx_pause_duration_us,
                            c.rx_pause_duration_us,
                            c.rx_pause_transitions,
                            c.tx_discards,
                            c.rx_discards};
  };
  core_.qos.clear_port_source = [&pfc] { pfc.clear_priority_counters(); };
}

PciIdentity NicDevice::identity() const {
  return PciIdentity{ORNIC_PCI_VENDOR_ID, ORNIC_PCI_DEVICE_ID, ORNIC_PCI_SUBSYS_VENDOR_ID,
                     ORNIC_PCI_SUBSYS_ID, ORNIC_PCI_REVISION,  ORNIC_PCI_CLASS_CODE};
}

std::array<BarDescriptor, 6> NicDevice::bars() const {
  std::array<BarDescriptor, 6> bars{};
  bars[ORNIC_BAR_REGS] = BarDescriptor{ORNIC_BAR_REGS_SIZE, true, false};
  bars[ORNIC_BAR_DOORBELL] = BarDescriptor{ORNIC_BAR_DOORBELL_SIZE, true, false};
  bars[ORNIC_BAR_MSIX] = BarDescriptor{ORNIC_BAR_MSIX_SIZE, true, false};
  return bars;
}

MsixLayout NicDevice::msix() const {
  return MsixLayout{ORNIC_MSIX_VECTORS, ORNIC_BAR_MSIX, ORNIC_MSIX_TABLE_OFFSET,
                    ORNIC_MSIX_PBA_OFFSET};
}

void NicDevice::attach(GuestMemory& memory, InterruptSink& irqs) {
  core_.attach(memory, irqs);
}

RegisterView NicDevice::register_view() const {
  RegisterView view;
  view.ready = admin_.running();
  view.fatal = core_.fatal();
  view.fatal_code = core_.fatal_code();
  view.aq_head = admin_.head();
  view.link_up = core_.link_up;
  view.mac = core_.permanent_mac;
  view.bar2_writes = bar2_writes_;
  view.caps = core_.caps();
  return view;
}

uint64_t NicDevice::bar_read(unsigned bar, uint64_t offset, unsigned size) {
  if (bar == ORNIC_BAR_DOORBELL)
    return doorbell_page_read(offset, size);
  if (bar != ORNIC_BAR_REGS)
    return 0;
  if (size != 4 || offset % 4 != 0) {
    core_.counters.inc(ORNIC_CNT_REG_BAD_ACCESS);
    return 0;
  }
  const auto value = registers_.read(offset, register_view());
  if (!value) {
    core_.counters.inc(ORNIC_CNT_REG_BAD_ACCESS);
    return 0;
  }
  return *value;
}

// Doorbells are write-only; the one thing a doorbell page reads is the device clock
// (doorbells.rst, "Device clock"), whole or by halves, in any page.
uint64_t NicDevice::doorbell_page_read(uint64_t offset, unsigned size) const {
  if (!(limits::kCaps & ORNIC_CAP_CQE_TIMESTAMP) || offset >= ORNIC_BAR_DOORBELL_SIZE)
    return 0;
  const uint64_t in_page = offset & (ORNIC_DB_PAGE_SIZE - 1);
  if (in_page == ORNIC_DB_CLOCK && size == 8)
    return core_.clock_ns();
  if (in_page == ORNIC_DB_CLOCK_LO && size == 4)
    return static_cast<uint32_t>(core_.clock_ns());
  if (in_page == ORNIC_DB_CLOCK_HI && size == 4)
    return core_.clock_ns() >> 32;
  return 0;
}

void NicDevice::bar_write(unsigned bar, uint64_t offset, unsigned size, uint64_t value) {
  if (bar == ORNIC_BAR_REGS) {
    if (size != 4 || offset % 4 != 0) {
      core_.counters.inc(ORNIC_CNT_REG_BAD_ACCESS);
      return;
    }
    write_register(offset, static_cast<uint32_t>(value));
    return;
  }
  if (bar != ORNIC_BAR_DOORBELL)
    return;
  ++bar2_writes_; // counted even when ignored: software checks none was lost
  if (offset >= ORNIC_BAR_DOORBELL_SIZE)
    return;
  const auto doorbell =
      doorbell_decoder_.decode(offset, size, value, core_.resources.db_pages, core_.counters);
  // A disabled or dead device ignores doorbells (after counting the write).
  if (doorbell && ready())
    doorbells_.ring(*doorbell);
}

void NicDevice::write_register(uint64_t offset, uint32_t value) {
  const RegisterWrite effect = registers_.write(offset, value);
  switch (effect.effect) {
  case RegisterEffect::kNone:
    return;
  case RegisterEffect::kBadAccess:
    core_.counters.inc(ORNIC_CNT_REG_BAD_ACCESS);
    return;
  case RegisterEffect::kEnable:
    return enable();
  case RegisterEffect::kDisable:
  case RegisterEffect::kReset:
    return reset();
  case RegisterEffect::kAqTail:
    return admin_.doorbell(effect.value);
  case RegisterEffect::kAeqDoorbell:
    return aeq_doorbell(effect.value);
  }
}

void NicDevice::enable() {
  const AdminQueueConfig& config = registers_.config();
  if (!config.valid()) {
    registers_.set_enable_failed(true);
    core_.log.warn("enable refused: invalid admin queue / async EQ configuration");
    return;
  }
  registers_.set_enable_failed(false);
  registers_.set_enabled(true);
  const unsigned aeq_log_depth = static_cast<unsigned>(std::countr_zero(config.aeq_depth));
  core_.async_eq.emplace(
      QueueMemory::contiguous(config.aeq_base, uint64_t{config.aeq_depth} * ORNIC_EQE_SIZE),
      aeq_log_depth, ORNIC_MSIX_VECTOR_ADMIN);
  admin_.start(config.sq_base, config.cq_base, config.depth);
  eth_.set_active(true);
}

void NicDevice::aeq_doorbell(uint32_t value) {
  if (!ready() || !core_.async_eq) {
    core_.counters.inc(ORNIC_CNT_REG_BAD_ACCESS);
    return;
  }
  EventQueue& eq = *core_.async_eq;
  // Extend the 16-bit index relative to the device's consumer index (registers.rst).
  const uint32_t consumer = eq.ring().consumer;
  const uint32_t index = consumer + ((value - consumer) & ORNIC_AEQ_DB_INDEX_MASK);
  if (!eq.doorbell(core_.irqs(), core_.counters, index, (value & ORNIC_AEQ_DB_ARM) != 0))
    core_.counters.inc(ORNIC_CNT_DB_BAD_INDEX);
}

void NicDevice::link_changed(bool up) {
  if (core_.link_up == up)
    return;
  core_.link_up = up;
  if (core_.is_ib()) {
    // The logical state follows (infiniband.rst, "Port state"); leaving Active is an event.
    core_.ib_physical_link(up);
    return;
  }
  if (ready())
    core_.post_async_event(ORNIC_EQE_PORT_STATE, 1, up ? ORNIC_PORT_ACTIVE : ORNIC_PORT_DOWN);
}

nlohmann::json NicDevice::state() const {
  nlohmann::json state = device_state(core_);
  state["ready"] = ready();
  return state;
}

void NicDevice::reset() {
  admin_.stop();
  if (iwarp_cm_)
    iwarp_cm_->reset();
  eth_.reset();
  transport_->reset();
  core_.reset();
  registers_.reset();
  doorbell_decoder_.reset();
  bar2_writes_ = 0;
  core_.link_up = port_ != nullptr && port_->link_up();
  if (core_.is_ib())
    core_.ib_physical_link(core_.link_up);
}

} // namespace ornic
