from afp_desktop.cli import main

raise SystemExit(main())
