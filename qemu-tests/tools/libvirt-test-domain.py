#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""libvirt-test-domain.py XML [options]: the user guide's libvirt domain, booted as a test guest.

Reads a domain XML (the guide's libvirt-domain recipe) and prints it with
only what a test guest must change: its disk and boot order give way to a
direct kernel boot (--kernel, --initrd, --cmdline) and 9p shares (--share
TAG,DIR[,ro]), its serial console goes to a file (--console), the domain
is renamed (--name) and runs under TCG (type 'qemu', CPU model 'maximum':
host-passthrough needs KVM), and it is destroyed when the guest powers off
or reboots.  Memory backing, controllers and <qemu:commandline> are kept
as written.
"""
import argparse
import sys
import xml.etree.ElementTree as ET

QEMU_NS = "http://libvirt.org/schemas/domain/qemu/1.0"


def child(parent, tag):
    node = parent.find(tag)
    if node is None:
        node = ET.SubElement(parent, tag)
    return node


def transform(dom, args):
    dom.set("type", "qemu")
    child(dom, "name").text = args.name
    osel = child(dom, "os")
    for boot in osel.findall("boot"):
        osel.remove(boot)
    for tag, value in (("kernel", args.kernel), ("initrd", args.initrd),
                       ("cmdline", args.cmdline)):
        child(osel, tag).text = value
    cpu = child(dom, "cpu")
    cpu.attrib.clear()
    cpu.set("mode", "maximum")
    for event in ("on_poweroff", "on_reboot", "on_crash"):
        child(dom, event).text = "destroy"
    devices = child(dom, "devices")
    for tag in ("disk", "serial", "console"):
        for node in devices.findall(tag):
            devices.remove(node)
    for share in args.share:
        tag, path, *flags = share.split(",")
        fs = ET.SubElement(devices, "filesystem", type="mount", accessmode="passthrough")
        ET.SubElement(fs, "driver", type="path")
        ET.SubElement(fs, "source", dir=path)
        ET.SubElement(fs, "target", dir=tag)
        if "ro" in flags:
            ET.SubElement(fs, "readonly")
    serial = ET.SubElement(devices, "serial", type="file")
    ET.SubElement(serial, "source", path=args.console)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("xml")
    ap.add_argument("--name", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--cmdline", required=True)
    ap.add_argument("--console", required=True)
    ap.add_argument("--share", action="append", default=[])
    args = ap.parse_args()
    ET.register_namespace("qemu", QEMU_NS)
    tree = ET.parse(args.xml)
    transform(tree.getroot(), args)
    tree.write(sys.stdout, encoding="unicode")
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
