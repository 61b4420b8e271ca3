print("bot")
