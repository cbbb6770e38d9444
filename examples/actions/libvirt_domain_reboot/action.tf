# Reboot the guest whenever the kernel command line it should boot with
# changes (the domain's definition changes at the next boot only):
#   terraform apply                  runs it after the change
#   terraform apply -invoke=action.libvirt_domain_reboot.web   runs it now
action "libvirt_domain_reboot" "web" {
  config {
    domain = "web" # the domain's name or UUID (libvirt_domain.web.id)
  }
}

variable "kernel_args" {
  type    = string
  default = "console=ttyS0"
}

resource "terraform_data" "kernel_args" {
  input = var.kernel_args
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.libvirt_domain_reboot.web]
    }
  }
}
