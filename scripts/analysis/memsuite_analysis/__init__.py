"""memsuite's analyser: one program over one results model.

  model      reading documents (references, node reports) into summaries
  stats      median, MAD, the outlier rule (pure functions)
  classify   verdicts from summaries and statistics (computes, never prints)
  render     text, JSON and drain lines (formats, never computes)
  <command>  one module per subcommand, registered in cli.COMMANDS
"""
