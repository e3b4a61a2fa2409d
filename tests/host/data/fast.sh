#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A test that passes at once, after a slow or a crashing one.
echo "TAP version 13"
echo "1..1"
echo "ok 1 fast"
