# The package's names in its man pages (see README.Debian): the module is
# pam_namespace_ng.so, the pages namespace.conf-ng(5) and pam_namespace_ng(8),
# the helper, its page and its unit pam_namespace_ng_helper.
# The line that names both modules, before the renames below would make it
# name ours twice.
/\\fBpam_namespace_ng\.\\&so\\fR, the Debian package'\\&s)/{
s/\\fBpam_namespace\.\\&so\\fR (or \\fBpam_namespace_ng\.\\&so\\fR, the Debian package'\\&s)/\\fBpam_namespace_ng.\\\&so\\fR (or Linux-PAM'\\\&s \\fBpam_namespace.\\\&so\\fR)/
b
}
# The meson example (a module under /usr/local) is not the package's.
/^A module installed outside the PAM module directory/,/^Why a login was refused/{
/^Why a login was refused/!d
}
s/pam_namespace_helper/pam_namespace_ng_helper/g
s/^\.TH "namespace\.conf" "5"/.TH "namespace.conf-ng" "5"/
s/^\.TH "pam_namespace" "8"/.TH "pam_namespace_ng" "8"/
s/^namespace\.\\&conf - /namespace.\\\&conf-ng - /
s/^pam_namespace - /pam_namespace_ng - /
s/pam_namespace\.\\&so/pam_namespace_ng.\\\&so/g
s/\\fBnamespace\.\\&conf\\fR(5)/\\fBnamespace.\\\&conf-ng\\fR(5)/g
s/\\fBpam_namespace\\fR(8)/\\fBpam_namespace_ng\\fR(8)/g
