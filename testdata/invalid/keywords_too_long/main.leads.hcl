api {
  sandbox = true
}
# A value pasted by mistake: sent to the service with every call.
search "cto" {
  keywords = format("CTO %01000d", 0) # ERROR: keywords is 1,004 characters long; at most 1,000 are allowed
}
