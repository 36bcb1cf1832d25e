// A user's own IRDL dialect, loaded with --irdl-file next to the project's.
irdl.dialect @user_ext {
  irdl.operation @sink {
    %any = irdl.any
    irdl.operands(x: %any)
  }
}
