"""The shareable report: sections read from the project, figures, and the HTML and Markdown files."""
