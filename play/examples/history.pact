@t0 ^seq .mt .cb[role="user"]
