"""Records on disk and what is made of them: the aggregate matrix, terminal, Markdown and HTML renderers."""
