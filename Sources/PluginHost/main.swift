// patchbay-plugin-host: one process per plugin instance (work in progress).
