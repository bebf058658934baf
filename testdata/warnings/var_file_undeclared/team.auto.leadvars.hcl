citys = ["Berlin"] # WARNING: team.auto.leadvars.hcl sets "citys", but no variable block declares it, so it is ignored.
