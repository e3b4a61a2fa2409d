#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A guest command that is up, and then goes on until it is stopped
# (test-interrupt's boot, as a --guest-cmd).
echo "guest is up"
exec sleep 600
