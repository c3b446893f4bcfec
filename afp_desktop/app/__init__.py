"""The Qt application: session (one run, one cursor), main window and panels."""
