#!/bin/sh
# On a machine with much memory the JVM's default heap (a 64th of the RAM)
# is above BrainJar's 256 MiB: size it to fit.
java -Xmx160m -jar bot.jar $1
