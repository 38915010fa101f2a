"""Render: templates, the page's files and the site's own files, as bytes in memory."""
