"""The command line and the commands around the build: cli, config, dev, watch, pull, diff, docs, starter."""
