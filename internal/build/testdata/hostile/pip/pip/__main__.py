import pip  # the marker is written on import
