"""What the pages, the CLI and the files show of stored debates, without Streamlit and without SQL:
`views` (tables and texts the pages draw), `glossary` (plain words for codes), `compare` (two
debates side by side) and `export` (transcripts, the source protocol's files, cassettes)."""
