#!/bin/sh
# Dies at once without writing anything.
echo "segmentation fault (pretend)" >&2
exit 139
