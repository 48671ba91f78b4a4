# The package's names in its man pages (see README.Debian): the module is
# pam_namespace_ng.so, the pages namespace.conf-ng(5) and pam_namespace_ng(8),
# the helper, its page and its unit pam_namespace_ng_helper.
s/pam_namespace_helper/pam_namespace_ng_helper/g
s/^\.TH "namespace\.conf" "5"/.TH "namespace.conf-ng" "5"/
s/^\.TH "pam_namespace" "8"/.TH "pam_namespace_ng" "8"/
s/^namespace\.\\&conf - /namespace.\\\&conf-ng - /
s/^pam_namespace - /pam_namespace_ng - /
s/pam_namespace\.\\&so/pam_namespace_ng.\\\&so/g
s/\\fBnamespace\.\\&conf\\fR(5)/\\fBnamespace.\\\&conf-ng\\fR(5)/g
s/\\fBpam_namespace\\fR(8)/\\fBpam_namespace_ng\\fR(8)/g
