"""IR + models -> the generated files (unformatted): templates, filters, the runtime copy, the lockfile, the Markdown docs."""
