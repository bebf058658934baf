package cli

import "syscall"

const ioctlGetTermios = syscall.TCGETS
